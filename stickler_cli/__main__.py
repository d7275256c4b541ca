from .script import run

run()
