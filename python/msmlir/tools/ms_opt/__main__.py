"""python -m msmlir.tools.ms_opt: the same as the ms-opt command."""
import sys

from . import main

sys.exit(main())
