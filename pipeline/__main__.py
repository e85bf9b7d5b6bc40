import signal
import sys

try:
    from pipeline.cli.main import main
except KeyboardInterrupt:  # Ctrl-C while the command line's modules load: one line, as later on
    print("interrupted", file=sys.stderr)
    sys.exit(130)

code = main()
# the command has ended and said so: a Ctrl-C that lands during interpreter shutdown (a signal
# sent to the whole process group as the run finishes) must not replace its exit code
signal.signal(signal.SIGINT, signal.SIG_IGN)
sys.exit(code)
