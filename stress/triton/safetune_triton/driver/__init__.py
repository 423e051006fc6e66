"""The driver: Triton's autotuner run from many threads on the GPU scenarios, recorded and judged.

main.py runs the scenarios (scenarios.py) on threads (workers.py) and checks their traces;
results.py turns its runs into figures and verdicts; run_gpu.py is what ci/gpu runs (the driver
without and with the fix, judged). `safetune-triton drive` and `python3 -m safetune_triton.driver`
run main.py.
"""
