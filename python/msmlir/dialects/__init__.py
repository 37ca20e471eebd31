"""Python op classes for the msmlir dialects, generated from dialects/*.td."""
