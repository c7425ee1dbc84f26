package search

import (
	"encoding/binary"
	"strconv"
	"unsafe"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// Fields of a document. Keyword fields match exactly (case-sensitive, one
// term), but for level, kind and status whose values queries spell as oplog
// parses them (see oplog.ParseQuery); template is the ID of the text's
// template (oplog.TextTemplateID), computed from the text wherever it is
// needed and never kept in the store, and indexed by its first digits
// (templates.go). Text fields are analysed with
// wordsName (see analyzer.go). The time field of queries is not in bleve
// (see times.go).
var (
	keywordFields = []string{"name", "level", "source", "kind", "tool", "status", "replayOf", "run", ql.TemplateField}
	textFields    = ql.TextFields // the language's fields of words
	timeField     = ql.TimeField
)

// newMapping is the mapping of every segment: nothing stored (records load
// from bbolt by ID), no doc values (nothing sorts in bleve), no term vectors
// (phrases are checked against the records, see phrase.go; fragments are
// cut from the records too); no _all field (the translator sends
// unqualified terms to text and stack).
func newMapping() *mapping.IndexMappingImpl {
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = wordsName
	m.IndexDynamic, m.StoreDynamic, m.DocValuesDynamic = false, false, false
	doc := bleve.NewDocumentStaticMapping()
	for _, f := range keywordFields {
		fm := bleve.NewKeywordFieldMapping()
		fm.Store, fm.IncludeInAll, fm.IncludeTermVectors, fm.DocValues = false, false, false, false
		doc.AddFieldMappingsAt(f, fm)
	}
	for _, f := range textFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = wordsName
		fm.Store, fm.IncludeInAll, fm.IncludeTermVectors, fm.DocValues = false, false, false, false
		doc.AddFieldMappingsAt(f, fm)
	}
	m.DefaultMapping = doc
	m.DefaultField = "text"
	return m
}

// analyzers are the mapping's analyzers, resolved once.
type analyzers struct {
	keyword, text analysis.Analyzer
	words         *wordsAnalyzer // text, for the documents' fields
	kw            *kwCache       // the documents' keyword fields
}

func newAnalyzers(m mapping.IndexMapping) analyzers {
	text := m.AnalyzerNamed(wordsName)
	words, _ := text.(*wordsAnalyzer)
	return analyzers{keyword: m.AnalyzerNamed(keyword.Name), text: text, words: words, kw: newKwCache()}
}

// The fields' indexing options. Nothing is scored, so terms are indexed
// without their frequency and the field's length (SkipFreqNorm: their
// frequencies are 0), a byte or two less per posting. The keyword fields
// whose values are nearly unique to a record (replayOf) keep
// them: zap writes a term of one document as its dictionary entry alone
// (its "1-hit" encoding), but only for a frequency of 1. Variables for the
// benchmarks.
var (
	keywordOpts = index.IndexField | index.SkipFreqNorm
	uniqueOpts  = index.IndexField
	textOpts    = index.IndexField | index.SkipFreqNorm
)

// keywordOptions are the indexing options of keyword field name.
func keywordOptions(name string) index.FieldIndexingOptions {
	if name == "replayOf" {
		return uniqueOpts
	}
	return keywordOpts
}

// docID is an ID as keyword fields hold it (run, replayOf): decimal.
func docID(id uint64) string { return strconv.FormatUint(id, 10) }

// recordDocID is a record's document ID: its ID's big-endian bytes without
// the leading zero bytes (3 bytes for the IDs up to 16 million, where the
// decimal took 6 to 8: bleve stores each document's ID, and its dictionary
// holds it as a term).
func recordDocID(id uint64) string {
	b := binary.BigEndian.AppendUint64(nil, id)
	i := 0
	for i < 7 && b[i] == 0 {
		i++
	}
	return string(b[i:])
}

// parseDocID returns the ID of a record's document ID; false for a
// document ID no record has.
func parseDocID(ext string) (uint64, bool) {
	if ext == "" || len(ext) > 8 || ext[0] == 0 {
		return 0, false
	}
	var id uint64
	for i := 0; i < len(ext); i++ {
		id = id<<8 | uint64(ext[i])
	}
	return id, true
}

// document builds r's document directly, skipping bleve's reflection and
// its general analysis (see field.go).
func (a *analyzers) document(r *oplog.Record) *document.Document {
	d := document.NewDocument(recordDocID(r.ID))
	kw := func(name, v string) {
		if v != "" {
			d.AddField(a.kw.field(name, v))
		}
	}
	kw("level", r.Level.String())
	for _, f := range keywords(r.Name, r.Source, r.Kind, r.Tool, r.Status, r.ReplayOf) {
		kw(f.field, f.v)
	}
	if r.Run != 0 {
		kw("run", docID(r.Run))
	}
	if !omitTemplates {
		kw(ql.TemplateField, templateBucket(oplog.RecordTemplateID(r)))
	}
	for _, f := range [2]textField{{name: "text", value: bytesOf(r.Text)}, {name: "stack", value: bytesOf(r.Stack)}} {
		if len(f.value) == 0 || omitText {
			continue
		}
		tf := &textField{name: f.name, value: f.value, an: a.words}
		d.AddField(tf)
		if len(tf.value) >= cutMinBytes {
			// Analysed here, not in bleve's batch, to know whether it is cut.
			if tf.Analyze(); tf.cut {
				kw(cutField, tf.name)
			}
		}
	}
	return d
}

// omitTemplates makes documents as mapping version 7 did, without
// template: the test of the migration writes an index from before with it.
var omitTemplates = false

// omitText makes documents without text and stack: what the index would
// take with the filters' fields only (BenchmarkIndexVariants).
var omitText = false

// bytesOf returns s's bytes without a copy: the fields of a document only
// read them, while the record is held.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// keywordField is a keyword field and its value as indexed; "" for none.
type keywordField struct{ field, v string }

// keywords spells the keyword fields that a record and a query's filters
// share, as document indexes them and compile matches them, so that a new
// field is added to both at once. level is apart: a record has one level,
// a query a minimum.
func keywords(name, source string, kind oplog.Kind, tool string, status oplog.Status, replayOf uint64) [6]keywordField {
	kw := [6]keywordField{{"name", name}, {"source", source}, {"kind", kind.String()}, {"tool", tool},
		{"status", status.String()}, {"replayOf", ""}}
	if replayOf != 0 {
		kw[5].v = docID(replayOf)
	}
	return kw
}
