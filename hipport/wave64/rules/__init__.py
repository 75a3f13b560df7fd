"""One module per wave64 rule; `hipport.wave64.registry.RULES` lists them."""
