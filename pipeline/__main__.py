import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while the command line's modules load: one line, as later on
    print("interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
