"""Search on determinized worlds: the exact solver, PIMC building blocks, opponent inference."""
