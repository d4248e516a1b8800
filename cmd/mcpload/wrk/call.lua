-- call.lua: the wrk script of mcpload -load wrk. It POSTs one JSON-RPC
-- request over and over; the request comes from the environment, so the
-- same script serves both protocol eras and can be run by hand:
--
--   WRK_BODY='{"jsonrpc":"2.0","id":1,"method":"tools/call",...}' \
--   WRK_HEADERS=$'Mcp-Protocol-Version: 2026-07-28\nMcp-Method: tools/call' \
--   wrk -t1 -c32 -d10s --latency -s cmd/mcpload/wrk/call.lua http://127.0.0.1:8080/api/platform/ID/mcp
--
-- WRK_HEADERS holds extra headers, one "Name: value" a line.
wrk.method = "POST"
wrk.body = os.getenv("WRK_BODY") or error("WRK_BODY is not set")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
for line in (os.getenv("WRK_HEADERS") or ""):gmatch("[^\n]+") do
  local name, value = line:match("^%s*([^:]+):%s*(.-)%s*$")
  if name then
    wrk.headers[name] = value
  end
end
