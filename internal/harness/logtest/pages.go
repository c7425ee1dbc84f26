package logtest

import "go.etcd.io/bbolt"

// TreePages lists the branch and leaf pages of the bbolt file at path: the
// pages whose headers a store's Open checks (not free pages, nor the
// overflow pages a large value runs on into), for tests that damage them.
func TreePages(path string) ([]int64, error) {
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var tree []int64
	err = db.View(func(tx *bbolt.Tx) error {
		for id := 2; id < int(tx.Size()/int64(db.Info().PageSize)); {
			info, err := tx.Page(id)
			if err != nil || info == nil {
				return err
			}
			if info.Type == "branch" || info.Type == "leaf" {
				tree = append(tree, int64(id))
			}
			id += 1 + info.OverflowCount
		}
		return nil
	})
	return tree, err
}
