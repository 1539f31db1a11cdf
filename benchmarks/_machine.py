"""What a benchmark row records about where and when it ran: the machine, the load, the date."""

from __future__ import annotations

import os
import platform
import sys
import time


def machine() -> str:
    """``"x86_64, 2 cores (AMD EPYC), Python 3.11.7"``: enough to compare two runs' machines."""
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), "")
    except OSError:
        pass
    cpu = f" ({model})" if model else ""
    return f"{platform.machine()}, {os.cpu_count()} cores{cpu}, Python {platform.python_version()}"


def load() -> float:
    """The one-minute load average (NaN where the system has none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def stamp() -> dict:
    """The columns every benchmark CSV row carries: machine, load, date, command."""
    return {"machine": machine(), "load": round(load(), 2), "date": time.strftime("%Y-%m-%d %H:%M"),
            "command": "python " + " ".join(["benchmarks/" + os.path.basename(sys.argv[0]), *sys.argv[1:]])}
