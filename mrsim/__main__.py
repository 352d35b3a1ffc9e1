import sys

from mrsim.cli import main

sys.exit(main())
