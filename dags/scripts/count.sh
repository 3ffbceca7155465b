#!/bin/sh
# Counts the words of words.txt, beside it.
wc -w < words.txt
