"""Physical constants used by more than one module (SI units, exact where SI defines them)."""

from __future__ import annotations

# Speed of light in vacuum, m/s (exact by the SI definition of the metre).
SPEED_OF_LIGHT_M_S = 299_792_458.0

# Boltzmann constant, J/K (exact since the 2019 SI redefinition).
BOLTZMANN_J_PER_K = 1.380649e-23

# Reference noise temperature, K (ITU-R and 3GPP link budgets use T0 = 290 K).
REFERENCE_TEMPERATURE_K = 290.0
