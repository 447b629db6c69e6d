"""`python -m tfce_eval` runs the command line."""

from tfce_eval.cli import main

if __name__ == "__main__":
    main()
