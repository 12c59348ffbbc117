"""Formatting numbers and verdicts for the report."""
import math


def fmt(value: float, digits: int = 3) -> str:
    """A number with `digits` significant digits, without scientific notation."""
    if value == 0 or value != value:
        return str(value)
    magnitude = abs(value)
    decimals = max(0, digits - 1 - int(math.floor(math.log10(magnitude))))
    return f"{value:,.{decimals}f}"


def ratio(value: float) -> str:
    return f"{value:.2f}x"


def mark(met: bool) -> str:
    """A verdict (verdicts.py) as the summary table shows it."""
    return "**met**" if met else "**missed**"


def ns(value: float) -> str:
    """Nanoseconds in the unit that reads best."""
    for unit, scale in [("ms", 1e6), ("us", 1e3)]:
        if value >= scale:
            return f"{fmt(value / scale)} {unit}"
    return f"{fmt(value)} ns"
