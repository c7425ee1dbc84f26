-- A small LÖVE game that crashes on its third frame, as a first try often does.
local frames, player = 0, nil

function love.update(dt)
	frames = frames + 1
	if frames == 3 then
		print("spawning the player")
		player.x = 10 -- player is nil: "attempt to index"
	end
end

-- LÖVE's error screen waits for its window to be closed; this game prints
-- what the screen would show, as LÖVE does, and quits with status 1.
function love.errorhandler(msg)
	print((debug.traceback("Error: " .. tostring(msg), 3):gsub("\n[^\n]+$", "")))
	return function() return 1 end
end
