"""CSS and JS of the porting report (package data, copied next to the pages)."""
