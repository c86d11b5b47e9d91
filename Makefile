# Thin wrappers; dev.py does the work and needs only python3.
.PHONY: demo test zipapp docs
demo:
	python3 dev.py demo
test:
	python3 dev.py test
zipapp:
	python3 dev.py zipapp
docs:
	python3 dev.py docs
