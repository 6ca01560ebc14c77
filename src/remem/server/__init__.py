"""Interfaces over the network: the MCP server, the REST API and the OpenAI-compatible proxy."""
