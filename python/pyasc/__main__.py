"""python3 -m pyasc ...: the pyasc CLI (see pyasc.cli)."""
import sys

from .cli import main

sys.exit(main())
