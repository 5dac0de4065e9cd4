"""``python -m mark1``: the command line."""

from mark1.cli import program

if __name__ == "__main__":
    program()
