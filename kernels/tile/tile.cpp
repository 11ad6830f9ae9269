// Typed tiles: implementation (filled in with the tile API).
