#!/bin/sh
# An MCP server that starts and never answers: reads stdin forever.
exec cat > /dev/null
