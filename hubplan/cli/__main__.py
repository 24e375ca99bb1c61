"""``python -m hubplan.cli``: the same as the ``hubplan`` command."""

import sys

from .main import main

sys.exit(main())
