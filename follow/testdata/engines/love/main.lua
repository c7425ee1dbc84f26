-- What mcplogd's engine tests make LÖVE print. The mode is the first
-- argument after the game: ok (quit with 0), exit3 (quit with 3), error
-- (index nil in love.update: LÖVE's error screen, until it is killed).
local mode = "ok"
for i = 1, #arg do
	if arg[i] == "exit3" or arg[i] == "error" then mode = arg[i] end
end
local frames = 0

function love.load()
	print("[INFO] probe starting, mode=" .. mode)
	print("WARNING: low health")
	print("ERROR: save slot missing")
end

function love.update(dt)
	frames = frames + 1
	if frames < 3 then return end
	if mode == "error" then
		local player = nil
		print("[INFO] hitting the player")
		player.hp = player.hp - 1
	elseif mode == "exit3" then
		love.event.quit(3)
	else
		print("[INFO] done")
		love.event.quit(0)
	end
end
