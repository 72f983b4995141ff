"""python3 -m uringlab.report RUN (see __init__.py)."""
from uringlab.report import main

main()
