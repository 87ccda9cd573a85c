"""``python -m controller.cli``: the same as the ``dvonn-board`` command."""

import sys

from controller.cli import main

sys.exit(main())
