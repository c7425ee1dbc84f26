package main

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"testing"
)

// TestBuild_ForwardsProcessPrng reads the DLL back with debug/pe: one
// section, and an export directory naming the DLL, whose one export is
// ProcessPrng forwarded to advapi32.SystemFunction036.
func TestBuild_ForwardsProcessPrng(t *testing.T) {
	b := build()
	f, err := pe.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opt, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok || f.Characteristics&pe.IMAGE_FILE_DLL == 0 || f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		t.Fatalf("not an amd64 PE32+ DLL: %+v", f.FileHeader)
	}
	if len(f.Sections) != 1 {
		t.Fatalf("%d sections, want 1", len(f.Sections))
	}
	data, err := f.Sections[0].Data()
	if err != nil {
		t.Fatal(err)
	}
	dd := opt.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_EXPORT]
	base := f.Sections[0].VirtualAddress
	at := func(rva uint32) []byte { return data[rva-base:] }
	cstr := func(rva uint32) string { s := at(rva); return string(s[:bytes.IndexByte(s, 0)]) }
	var dir exportDirectory
	if err := binary.Read(bytes.NewReader(at(dd.VirtualAddress)), binary.LittleEndian, &dir); err != nil {
		t.Fatal(err)
	}
	if got := cstr(dir.Name); got != dllName {
		t.Errorf("DLL name %q, want %q", got, dllName)
	}
	if dir.NumberOfFunctions != 1 || dir.NumberOfNames != 1 {
		t.Fatalf("%d functions, %d names; want 1 and 1", dir.NumberOfFunctions, dir.NumberOfNames)
	}
	if got := cstr(binary.LittleEndian.Uint32(at(dir.AddressOfNames))); got != "ProcessPrng" {
		t.Errorf("export %q, want ProcessPrng", got)
	}
	fn := binary.LittleEndian.Uint32(at(dir.AddressOfFunctions))
	if fn < dd.VirtualAddress || fn >= dd.VirtualAddress+dd.Size {
		t.Fatalf("the function's address %#x is outside the export directory: not a forwarder", fn)
	}
	if got := cstr(fn); got != "advapi32.SystemFunction036" {
		t.Errorf("forwarded to %q, want advapi32.SystemFunction036", got)
	}
}
