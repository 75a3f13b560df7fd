"""HTML templates of the porting report (package data; string.Template syntax)."""
