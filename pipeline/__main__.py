import os
import signal
import sys

try:
    from pipeline.cli.main import main
except KeyboardInterrupt:  # Ctrl-C (or SIGTERM) while the command line's modules load: one line, as later on
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        os.write(2, b"interrupted\n")
    except OSError:
        pass
    os._exit(130)

# main() ignores SIGINT and SIGTERM once the command has its exit code: a signal that lands
# during interpreter shutdown (sent to the whole process group as the run finishes) must not
# replace that code
sys.exit(main())
