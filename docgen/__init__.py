"""The documentation site's generated pages (MkDocs hooks and the reference generators)."""
