"""Document packets: how well a packet of pages was split into documents and each classified.

``metrics`` holds the figures (pure), ``reader`` reads packets from JSON Lines or a page-table CSV
and pairs them, ``report`` adds the packets' figures up into the report ``stickler split`` prints.
"""
