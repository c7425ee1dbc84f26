package query_test

import (
	"fmt"

	"github.com/mcplogd/mcplogd/oplog/query"
)

func ExampleParse() {
	n, err := query.Parse(`level:error AND name:Physics "null reference"`)
	if err != nil {
		panic(err)
	}
	fmt.Println(query.String(n))
	_, err = query.Parse(`a AND (b`)
	fmt.Println(err)
	// Output:
	// and(level:error name:Physics "null reference")
	// query: syntax error at character 7: '(' is never closed
	//   a AND (b
	//         ^
}
