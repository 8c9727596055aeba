"""Tests of pressmark.mcp (not named tests/unit/mcp: that package would shadow the MCP SDK)."""
