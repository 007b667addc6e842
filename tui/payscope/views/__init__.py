"""The generic pieces every area is built from: typed columns, a resource table, a resource
list view generic over its model, actions declared once, a detail screen base, generic forms and
one app-level signal for live updates. Nothing here imports an area: areas import these."""
