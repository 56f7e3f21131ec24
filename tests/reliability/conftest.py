import os
import sys

# the harness modules of this directory are scripts too (usable without pytest)
sys.path.insert(0, os.path.dirname(__file__))
