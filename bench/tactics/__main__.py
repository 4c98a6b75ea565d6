import sys

from bench.tactics.cli import main

sys.exit(main())
