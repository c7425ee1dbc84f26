function love.conf(t)
	t.modules.audio = false -- no sound card needed
	t.modules.sound = false
end
