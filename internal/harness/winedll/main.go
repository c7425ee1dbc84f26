package main

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"fmt"
	"os"
)

const (
	dllName   = "bcryptprimitives.dll"
	export    = "ProcessPrng"
	forwardTo = "advapi32.SystemFunction036"

	fileAlign = 0x200  // where the section starts in the file
	rva       = 0x1000 // where it is mapped, one page past the headers
	imageBase = 0x7ff7c0000000
)

// exportDirectory is IMAGE_EXPORT_DIRECTORY.
type exportDirectory struct {
	Characteristics, TimeDateStamp     uint32
	MajorVersion, MinorVersion         uint16
	Name, Base                         uint32
	NumberOfFunctions, NumberOfNames   uint32
	AddressOfFunctions, AddressOfNames uint32
	AddressOfNameOrdinals              uint32
}

func main() {
	if _, err := os.Stdout.Write(build()); err != nil {
		fmt.Fprintln(os.Stderr, "winedll:", err)
		os.Exit(1)
	}
}

// build returns the DLL: headers, then one read-only section holding the
// export directory, whose one function's address points back inside the
// directory, at "advapi32.SystemFunction036", which makes it a forwarder.
func build() []byte {
	section, size := exports()
	var out bytes.Buffer
	dos := make([]byte, 0x40)
	copy(dos, "MZ")
	binary.LittleEndian.PutUint32(dos[0x3c:], uint32(len(dos))) // e_lfanew
	out.Write(dos)
	out.WriteString("PE\x00\x00")
	write(&out, pe.FileHeader{
		Machine:              pe.IMAGE_FILE_MACHINE_AMD64,
		NumberOfSections:     1,
		SizeOfOptionalHeader: uint16(binary.Size(pe.OptionalHeader64{})),
		Characteristics:      pe.IMAGE_FILE_EXECUTABLE_IMAGE | pe.IMAGE_FILE_LARGE_ADDRESS_AWARE | pe.IMAGE_FILE_DLL,
	})
	opt := pe.OptionalHeader64{
		Magic:                       0x20b, // PE32+
		SizeOfInitializedData:       uint32(len(section)),
		BaseOfCode:                  rva,
		ImageBase:                   imageBase,
		SectionAlignment:            rva,
		FileAlignment:               fileAlign,
		MajorOperatingSystemVersion: 6,
		MajorSubsystemVersion:       6,
		SizeOfImage:                 rva + rva,
		SizeOfHeaders:               fileAlign,
		Subsystem:                   pe.IMAGE_SUBSYSTEM_WINDOWS_CUI,
		DllCharacteristics:          pe.IMAGE_DLLCHARACTERISTICS_NX_COMPAT,
		SizeOfStackReserve:          1 << 20,
		SizeOfStackCommit:           1 << 12,
		SizeOfHeapReserve:           1 << 20,
		SizeOfHeapCommit:            1 << 12,
		NumberOfRvaAndSizes:         16,
	}
	opt.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_EXPORT] = pe.DataDirectory{VirtualAddress: rva, Size: size}
	write(&out, opt)
	sh := pe.SectionHeader32{
		VirtualSize:      size,
		VirtualAddress:   rva,
		SizeOfRawData:    uint32(len(section)),
		PointerToRawData: fileAlign,
		Characteristics:  pe.IMAGE_SCN_CNT_INITIALIZED_DATA | pe.IMAGE_SCN_MEM_READ,
	}
	copy(sh.Name[:], ".rdata")
	write(&out, sh)
	out.Write(make([]byte, fileAlign-out.Len()))
	out.Write(section)
	return out.Bytes()
}

// exports returns the section (padded to fileAlign) and the size of what
// it holds: the directory, its three one-entry tables and the strings.
func exports() ([]byte, uint32) {
	dirSize := uint32(binary.Size(exportDirectory{}))
	functions := rva + dirSize
	names := functions + 4
	ordinals := names + 4
	nameAt := ordinals + 2
	exportAt := nameAt + uint32(len(dllName)) + 1
	forwardAt := exportAt + uint32(len(export)) + 1
	var b bytes.Buffer
	write(&b, exportDirectory{
		Name: nameAt, Base: 1, NumberOfFunctions: 1, NumberOfNames: 1,
		AddressOfFunctions: functions, AddressOfNames: names, AddressOfNameOrdinals: ordinals,
	})
	write(&b, uint32(forwardAt)) // the function's address: the forwarder string
	write(&b, uint32(exportAt))  // its name
	write(&b, uint16(0))         // its ordinal, less Base
	for _, s := range []string{dllName, export, forwardTo} {
		b.WriteString(s)
		b.WriteByte(0)
	}
	size := uint32(b.Len())
	b.Write(make([]byte, (fileAlign-b.Len()%fileAlign)%fileAlign))
	return b.Bytes(), size
}

// write appends v in little-endian order; a bytes.Buffer does not fail.
func write(b *bytes.Buffer, v any) {
	if err := binary.Write(b, binary.LittleEndian, v); err != nil {
		panic("BUG: " + err.Error())
	}
}
