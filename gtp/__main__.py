"""`python -m gtp ...` is the `tesuji` command."""
import sys

from gtp.cli import main

sys.exit(main())
