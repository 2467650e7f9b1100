"""python3 -m pyasc.sweep ...: the asc-sweep CLI (see pyasc.sweep.cli)."""
import sys

from .cli import main

sys.exit(main())
