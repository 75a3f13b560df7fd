"""The line map lives in hipport.linemap, shared with the HTML report; this name stays for
the imports that use it."""

from hipport.linemap import LineMap, Location

__all__ = ["LineMap", "Location"]
