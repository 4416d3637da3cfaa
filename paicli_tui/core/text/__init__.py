"""Chinese text tools shared by code search and memory: jieba segmentation, developer glossary."""
