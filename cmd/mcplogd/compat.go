package main

import (
	"flag"
	"fmt"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/mcptools"
)

// compatFlag adds --compat, the MCP answers' compatibility mode, to serve
// and stdio.
func compatFlag(fs *flag.FlagSet, mode *string) {
	fs.Func("compat", "answer MCP tool calls as another tool documents them: unity-bridge (the Unity-AI Bridge's envelope, names and unity_* tools); also \"compat\" in DATA/config.json", func(v string) error {
		*mode = v
		return mcptools.CheckCompat(v)
	})
}

// withCompat is the compatibility mode: the flag's, else config.json's.
func withCompat(flagMode string, cfg datadir.Config) (string, error) {
	if flagMode != "" {
		return flagMode, nil
	}
	if err := mcptools.CheckCompat(cfg.Compat); err != nil {
		return "", fmt.Errorf("config.json: %w", err)
	}
	return cfg.Compat, nil
}
