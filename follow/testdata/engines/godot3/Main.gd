extends Node
# What the engine tests make Godot 3 print: the mode is the argument after
# "--" (ok, exit3, segv, freed, errquit).

func _ready():
	var mode = "ok"
	var args = OS.get_cmdline_args()
	for i in range(args.size()):
		if args[i] == "--" and i + 1 < args.size():
			mode = args[i + 1]
	set_process(mode == "errquit")
	print("[probe] mode=", mode)
	printerr("[probe] to stderr")
	push_warning("[probe] low health")
	push_error("[probe] save slot missing")
	hit_nothing()
	print("[probe] still running")
	match mode:
		"exit3":
			get_tree().quit(3)
		"segv":
			print("[probe] crashing")
			OS.execute("kill", ["-SEGV", str(OS.get_process_id())], false)
		"freed":
			get_tree().call_deferred("free")
		"errquit":
			pass
		_:
			get_tree().quit(0)


# errquit: a script error every frame, and the player quits in the middle
# of them (status 0).
var frames = 0
func _process(_delta):
	frames += 1
	hit_nothing()
	if frames == 5:
		get_tree().quit(0)


# A script error stops only the function it happens in.
func hit_nothing():
	var nothing = null
	nothing.take_damage(3)
