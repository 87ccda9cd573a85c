"""The journal: every action on disk (SQLite, WAL) before the table shows the next turn.

- :mod:`controller.journal.store`: :class:`~controller.journal.store.Journal`, the games.
- :mod:`controller.journal.db`: the schema, result codes and rows.
- :mod:`controller.journal.lock`: one writer per journal; plain words for access problems.
- :mod:`controller.journal.recover`: what can still be read from a damaged journal.
"""
