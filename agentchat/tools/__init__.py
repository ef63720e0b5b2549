"""The tool catalogue (DESIGN §8): ``registry`` holds the specs, one module per domain registers them."""
