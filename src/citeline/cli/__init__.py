"""The `citeline` command line (`citeline.cli.main`).

numpy's OpenBLAS starts one thread per core as numpy is imported: ~0.15 s of CPU before the first
question on 2 cores (`bench/process.py until_answerer`), more on bigger machines. The products
citeline computes are matrix-vector products over at most `ann_min_chunks` rows (larger corpora
go through the HNSW graph), which are memory-bound and no faster on more threads. So the command
line runs OpenBLAS on one thread unless the user chose a number; the library leaves the
environment of the program that imports it alone.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
