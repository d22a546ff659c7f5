"""Generates the Random Variable fixture: python3 gen_random.py (run in this folder)."""
from jmxgen import *

write("random_variable.jmx", plan([
    group("Seeded", 2, 4, [random_var("r", "1", "10", seed="42", fmt="000", per_thread=True), debug("r=${r}")]),
    group("Range", 1, 20, [random_var("n", "-2", "2"), debug("n=${n}")]),
]))
