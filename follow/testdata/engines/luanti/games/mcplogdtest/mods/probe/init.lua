-- What mcplogd's engine tests make Luanti print. PROBE_MODE picks the run:
-- ok (logs, then a clean shutdown), crash_load (error() while loading),
-- crash_runtime (index nil in minetest.after), crash_call (call a nil
-- function two calls deep), crash_table (error() with a table).
local mode = os.getenv("PROBE_MODE") or "ok"
minetest.log("action", "[probe] mode=" .. mode)
minetest.log("warning", "[probe] low health")
minetest.log("error", "[probe] save slot missing")
minetest.log("info", "[probe] details")
minetest.log("action", "[probe] inventory:\nsword\nshield")
print("[probe] printed")

local function outer(f)
	return f()
end

if mode == "crash_load" then
	error("boom while loading")
end

minetest.after(0.5, function()
	if mode == "crash_runtime" then
		local player = nil
		return player.hp
	elseif mode == "crash_call" then
		local function inner()
			return outer(minetest.no_such_function)
		end
		inner()
	elseif mode == "crash_table" then
		error({code = 42})
	else
		minetest.log("action", "[probe] done")
		minetest.request_shutdown("done", false, 0)
	end
end)
