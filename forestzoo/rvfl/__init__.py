"""Random vector functional link (RVFL) networks and RVFL + forest hybrids."""

__all__ = []
