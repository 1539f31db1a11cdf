"""pybnc's version, its own module so that any stage can read it without importing the package."""

__version__ = "0.1.0"
