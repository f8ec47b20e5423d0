"""What was chosen: pure decisions from a request, target hosts and the knowledge base to a
`Plan` (one build per package family, fixed flavours, hidden system needs, toolkit wheels)."""
