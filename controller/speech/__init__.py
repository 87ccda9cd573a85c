"""The table speaks: each action, prompts, mismatches, cut-offs, the score and the result,
in the table's language, through espeak-ng (``--speak``), or into numbered WAV files
(``--speak-to FOLDER``), never blocking the table.

``words`` (the sentences) · ``espeak`` (the engine, the WAV folder) · ``speaker`` (a queue and
a worker thread) · ``announcer`` (listens to the TableController and says what changed) ·
``setup`` (all of it from the options and the ``[speech]`` config).
"""
