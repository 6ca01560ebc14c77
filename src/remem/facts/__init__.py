"""The fact layer: what is true about whom, and since when, derived from what was said.

``model`` holds the shapes (``Statement``, the attribute families, subject keys), ``extract``
reads statements out of records without an LLM, ``fold`` turns a subject's statements about one
attribute into facts with validity (a later value closes the earlier one, a negation closes
without a new value, a plan becomes true on its date). The store keeps the facts
(``remem.store.base.FactStore``); they are derived data, rebuilt from the records at will.
"""
