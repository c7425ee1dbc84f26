module github.com/blevesearch/zapx/v17

go 1.25.0

require (
	github.com/RoaringBitmap/roaring/v2 v2.14.5
	github.com/blevesearch/bleve_index_api v1.4.1
	github.com/blevesearch/go-faiss v1.1.5
	github.com/blevesearch/mmap-go v1.2.0
	github.com/blevesearch/scorch_segment_api/v2 v2.4.11
	github.com/blevesearch/vellum v1.2.1
	github.com/golang/snappy v1.0.0
	github.com/spf13/cobra v1.10.2
)

require (
	github.com/bits-and-blooms/bitset v1.24.2 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/mschoch/smat v0.2.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/sys v0.40.0 // indirect
)
