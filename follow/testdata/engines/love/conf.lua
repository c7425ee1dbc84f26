-- The engine tests run this game under Xvfb: a small window, no sound.
function love.conf(t)
	t.window.width, t.window.height = 160, 120
	t.modules.audio = false
	t.modules.sound = false
end
