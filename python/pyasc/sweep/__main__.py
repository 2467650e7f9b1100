"""python3 -m pyasc.sweep ...: the asc-sweep CLI (see pyasc.sweep.cli)."""
import sys

from .cli import main
from .. import _outfile

_outfile.terminate_raises()    # SIGTERM removes temporaries, as Ctrl-C does

sys.exit(main())
