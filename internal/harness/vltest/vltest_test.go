package vltest

import (
	"net/http"
	"strings"
	"testing"
)

func ingest(t *testing.T, v *VL, lines string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, v.URL+"/insert/jsonline?_stream_fields=s", strings.NewReader(lines))
	req.Header.Set("Content-Type", "application/stream+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("ingest: %s", resp.Status)
	}
}

func TestStart_IngestRestartQuery(t *testing.T) {
	v := Start(t)
	ingest(t, v, `{"_msg":"one","s":"a"}`+"\n"+`{"_msg":"two","s":"a"}`+"\n")
	v.ForceFlush(t)
	if rows := v.Query(t, `s:a | sort by (_msg)`); len(rows) != 2 || rows[0]["_msg"] != "one" {
		t.Fatalf("rows = %v, want one and two", rows)
	}
	v.Stop()
	v.Restart(t)
	if rows := v.Query(t, `*`); len(rows) != 2 {
		t.Fatalf("after a restart: %d rows, want 2", len(rows))
	}
}

func TestStartCluster_RowsOnBothNodes(t *testing.T) {
	v := StartCluster(t, 2)
	var b strings.Builder
	for i := range 200 {
		b.WriteString(`{"_msg":"row","s":"` + string(rune('a'+i%20)) + `"}` + "\n")
	}
	ingest(t, v, b.String())
	v.ForceFlush(t)
	if rows := v.Query(t, `* | stats count() n`); len(rows) != 1 || rows[0]["n"] != "200" {
		t.Fatalf("count = %v, want 200", rows)
	}
	// Each storage node answers for its share only: both have some.
	for i, n := range v.Storage {
		single := &VL{URL: n.URL, Front: n}
		rows := single.Query(t, `* | stats count() n`)
		if len(rows) != 1 || rows[0]["n"] == "0" || rows[0]["n"] == "200" {
			t.Errorf("storage node %d holds %v of 200 rows; want a share", i, rows)
		}
	}
}
