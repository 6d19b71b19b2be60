"""Write notebooks/ from the builders beside this file (same as `python -m shared build`)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shared.build import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
